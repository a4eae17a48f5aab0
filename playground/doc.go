// Package playground is the browser playground harnest serves at "/": a
// page of static files embedded in the binary (static/: plain HTML, CSS
// and JavaScript modules, no framework, no CDN, no build step) that talks
// to the agent through the public API only: sessions and transcripts,
// POST /responses as JSON or SSE, /live, AG-UI, approvals, client tools,
// assets, the owner's outside-agents routes, receipts and event logs.
//
// Handler serves the page and its files with a strict content security
// policy; IsPublic lets the auth middleware pass them (the page asks for a
// token and keeps it in memory). The browser tests in this folder drive
// headless Chromium with chromedp against in-process servers.
package playground
