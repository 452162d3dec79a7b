import assert from 'node:assert/strict';
import { test } from 'node:test';
import { prepareRecords, prepareRecordsInTurns } from './store.js';

test('prepareRecordsInTurns gives the texts and hashes of prepareRecords, for a page longer than one turn and with ids repeated across turns', async () => {
  const records: { id: string; [k: string]: unknown }[] = [];
  for (let i = 0; i < 350; i++) {
    // Shapes vary across the page (a key only some records have, nesting, a Date), so each slice's key list differs from the page's.
    records.push({
      id: String(i % 290),
      name: `n${i}`,
      ...(i % 3 === 0 && { extra: { b: i, a: [i, { z: 1, y: null }] } }),
      ...(i % 7 === 0 && { at: new Date(i * 1000) }),
    });
  }
  const whole = prepareRecords(records);
  const inTurns = await prepareRecordsInTurns(records);
  assert.deepEqual(inTurns, whole);
  // The last occurrence of an id wins, also when it is in a later slice than the first.
  assert.equal(inTurns.ids.length, 290);
  assert.equal(JSON.parse(inTurns.datas[inTurns.ids.indexOf('5')]!).name, 'n295');
});
