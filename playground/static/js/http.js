// http.js: the JSON and SSE transports of POST /responses, and following a
// response's event log (GET /responses/{id}/events?after=) to resume a
// stream, continue after an approval or follow a background run.

import { request, stream, path } from "./api.js";

/** startHTTP runs one turn over JSON (stream false) or SSE (stream true). */
export async function startHTTP(run, body, streamed) {
  run.abort = new AbortController();
  if (!streamed) {
    const env = await request("POST", "/responses", body, { signal: run.abort.signal });
    run.responseId = env.id;
    if (body.background && env.status === "in_progress") {
      await follow(run);
      return;
    }
    run.renderEnvelope(env);
    return;
  }
  try {
    await stream("/responses", { ...body, stream: true }, (f) => run.handle(f.data), { signal: run.abort.signal });
  } catch (e) {
    // A background run does not depend on its request: resume it.
    if (!body.background || !run.responseId || e.name === "AbortError") throw e;
  }
  if (!run.done && run.status !== "requires_action" && run.responseId) await follow(run);
}

/**
 * follow reads the response's event log after the last sequence the run
 * saw, until the response ends or waits again. A broken stream is resumed
 * a few times with ?after=.
 */
export async function follow(run) {
  for (let attempt = 0; attempt < 5 && !run.done; attempt++) {
    const controller = new AbortController();
    run.abort = controller;
    let stopped = false;
    const url = path(["responses", run.responseId, "events"], {
      sessionId: run.sessionId,
      after: run.lastSequence >= 0 ? run.lastSequence : undefined,
    });
    try {
      await stream(url, undefined, (f) => {
        if (stopped) return;
        run.handle(f.data);
        if (f.data && f.data.type === "response.completed") {
          stopped = true;
          controller.abort();
        }
      }, { signal: controller.signal });
    } catch (e) {
      if (!stopped && e.name === "AbortError") throw e; // cancelled by the page
      if (!stopped && e.status) throw e; // an API error: say it
    }
    if (stopped || run.done) return;
  }
}

/** httpAnswers answers waits with POST /approvals and /client-tools. */
export const httpAnswers = {
  streamed: false,
  async answerApproval(run, info, decision) {
    return answer(run, path(["approvals", info.id]), decision, this.streamed);
  },
  async answerClientTool(run, info, output) {
    return answer(run, path(["client-tools", info.id]), { output }, this.streamed);
  },
};

/** sseAnswers answers over HTTP and streams the rest from the event log. */
export const sseAnswers = { ...httpAnswers, streamed: true };

async function answer(run, url, body, streamed) {
  run.status = "in_progress";
  run.view.setBusy(true);
  if (!streamed) {
    let env;
    try {
      env = await request("POST", url, body);
    } catch (e) {
      // A refused answer (a bad edit) changes nothing: the wait is still open.
      run.status = "requires_action";
      run.view.setBusy(false);
      throw e;
    }
    run.renderEnvelope(env);
    return;
  }
  // The POST returns at the next boundary; the event log streams what
  // happens until then. Both run at once.
  const posted = request("POST", url, body);
  const followed = follow(run).catch((e) => {
    if (e.name !== "AbortError") run.fail(e.message);
  });
  try {
    await posted;
  } catch (e) {
    if (run.abort) run.abort.abort();
    throw e;
  }
}
