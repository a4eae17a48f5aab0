// Bundles page.jsx and serves it on 127.0.0.1:3000 (PORT), passing /api/
// to harnest (HARNEST_URL, default http://127.0.0.1:1907), as a Next.js
// rewrite would: the page and the chat API share one origin.
import { build } from "esbuild";
import http from "node:http";

const harnest = new URL(process.env.HARNEST_URL ?? "http://127.0.0.1:1907");
const port = Number(process.env.PORT ?? 3000);
const out = await build({
  entryPoints: [new URL("./page.jsx", import.meta.url).pathname],
  bundle: true, format: "esm", jsx: "automatic", minify: true, write: false,
  define: { "process.env.NODE_ENV": '"production"' },
});
const script = out.outputFiles[0].contents;
const page = `<!doctype html><html><head><meta charset="utf-8"><title>useChat on harnest</title>
<style>body{font:16px system-ui;max-width:44rem;margin:2rem auto}.reasoning{color:#777;font-style:italic}.tool,.data{font-size:13px;color:#555}</style>
</head><body><div id="root"></div><script type="module" src="/app.js"></script></body></html>`;

http.createServer((req, res) => {
  if (req.url.startsWith("/api/")) {
    const upstream = http.request(new URL(req.url, harnest), { method: req.method, headers: { ...req.headers, host: harnest.host } }, (up) => {
      res.writeHead(up.statusCode, up.headers);
      up.pipe(res); // streams pass as they come
    });
    upstream.on("error", (e) => { res.writeHead(502); res.end("harnest is not reachable at " + harnest + ": " + e.message); });
    req.pipe(upstream);
    return;
  }
  if (req.url === "/app.js") {
    res.writeHead(200, { "Content-Type": "text/javascript" });
    return res.end(script);
  }
  res.writeHead(200, { "Content-Type": "text/html" });
  res.end(page);
}).listen(port, "127.0.0.1", () => console.log(`open http://127.0.0.1:${port} (harnest at ${harnest})`));
