// The small check runner every script here shares: check runs one named
// check and prints one line for it, assert fails the check it is in, and
// finish prints the tally and exits non-zero when a check failed or none
// ran.
let passed = 0;
let failed = 0;

export async function check(name, fn) {
  try {
    await fn();
    passed++;
    console.log(`ok   ${name}`);
  } catch (e) {
    failed++;
    console.log(`FAIL ${name}: ${e?.stack ?? e}`);
  }
}

export function assert(cond, msg) {
  if (!cond) throw new Error(msg);
}

export function finish(label) {
  console.log(`${label}: ${passed} passed, ${failed} failed`);
  process.exit(failed === 0 && passed > 0 ? 0 : 1);
}
