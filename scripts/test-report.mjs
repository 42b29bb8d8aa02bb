// Reads the JSON reports of vitest and Playwright into counts and one line per failed test
// ("file › test name: first line of the error"), so the closing summary of `npm test` (the
// part CI logs keep) names what failed.
import path from 'node:path';

function firstLine(message) {
  return (
    String(message ?? '')
      // biome-ignore lint/suspicious/noControlCharactersInRegex: strips the ANSI colour codes in test messages
      .replace(/\u001b\[[0-9;]*m/g, '')
      .split('\n')
      .find((l) => l.trim())
      ?.trim()
      .slice(0, 300) ?? ''
  );
}

/** A vitest `--reporter=json` report. `root` makes file names relative. A test that passed on retry counts as passed (and is named). */
export function readVitestReport(report, root) {
  const failures = [];
  const flaky = [];
  for (const file of report.testResults ?? []) {
    const rel = path.relative(root, file.name ?? '');
    const failedTests = (file.assertionResults ?? []).filter((a) => a.status === 'failed');
    for (const a of failedTests) failures.push(`${rel} › ${a.fullName}: ${firstLine(a.failureMessages?.[0])}`);
    // vitest keeps the errors of the attempts a retry made good
    for (const a of file.assertionResults ?? []) {
      if (a.status === 'passed' && a.failureMessages?.length) flaky.push(`${rel} › ${a.fullName}: ${firstLine(a.failureMessages[0])}`);
    }
    // a file that failed outside any test (import error, hook timeout)
    if (file.status === 'failed' && failedTests.length === 0) failures.push(`${rel}: ${firstLine(file.message)}`);
  }
  const failedCount = report.numFailedTests ?? 0;
  return {
    passed: report.numPassedTests ?? 0,
    failed: failedCount + (report.success === false && failedCount === 0 ? 1 : 0),
    failures,
    flaky,
  };
}

/** A Playwright `json` reporter report; a test that passed on retry counts as passed (and is named). */
export function readPlaywrightReport(report) {
  const failures = [];
  const flaky = [];
  const walk = (suite, trail) => {
    for (const spec of suite.specs ?? []) {
      const name = `e2e/tests/${spec.file} › ${[...trail, spec.title].join(' › ')}`;
      for (const t of spec.tests ?? []) {
        if (t.status === 'unexpected') failures.push(`${name}: ${firstLine(t.results?.at(-1)?.error?.message)}`);
        if (t.status === 'flaky') flaky.push(`${name}: ${firstLine(t.results?.[0]?.error?.message)}`);
      }
    }
    for (const child of suite.suites ?? []) walk(child, child.title && child.title !== child.file ? [...trail, child.title] : trail);
  };
  for (const suite of report.suites ?? []) walk(suite, []);
  const s = report.stats ?? {};
  return { passed: (s.expected ?? 0) + (s.flaky ?? 0), failed: s.unexpected ?? 0, failures, flaky };
}
