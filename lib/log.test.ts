import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { createLogger, prettyStream, REDACTED, wantsPrettyLogs } from './log.js';

test('pretty on a terminal, JSON otherwise; LOG_FORMAT forces either', () => {
  assert.equal(wantsPrettyLogs({}, true), true);
  assert.equal(wantsPrettyLogs({}, false), false);
  assert.equal(wantsPrettyLogs({ LOG_FORMAT: 'json' }, true), false);
  assert.equal(wantsPrettyLogs({ LOG_FORMAT: 'pretty' }, false), true);
});

test('pretty lines are still redacted', () => {
  const sink = new PassThrough();
  let out = '';
  sink.on('data', (c: Buffer) => (out += c.toString('utf8')));
  const log = createLogger('info', prettyStream(sink));
  log.info({ token: 'tok-sekrit', connection: { access_token: 'at-sekrit' }, integration: 'github' }, 'hello people');
  assert.match(out, /INFO.*hello people/);
  assert.match(out, /integration: "github"/);
  assert.ok(out.includes(REDACTED));
  assert.ok(!out.includes('sekrit'), out);
  assert.ok(!out.trimStart().startsWith('{'), 'not JSON');
});
