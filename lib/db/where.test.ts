import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { pageQuery, Where } from './where.js';

describe('Where and pageQuery', () => {
  test('numbers the parameters in order, across conditions', () => {
    const w = new Where('connection_pk = ? AND model = ?', 7, 'Person').and('(created_at, id) < (?::timestamptz, ?)', '2026-01-01', 3);
    assert.equal(String(w), 'connection_pk = $1 AND model = $2 AND (created_at, id) < ($3::timestamptz, $4)');
    assert.deepEqual(w.values, [7, 'Person', '2026-01-01', 3]);
  });

  test('a function condition reuses its placeholder; a condition without values adds none', () => {
    const w = new Where('environment_id = ?', 1).and((p) => `(a ILIKE ${p} OR b ILIKE ${p})`, '%x%').and('error IS NOT NULL');
    assert.equal(String(w), 'environment_id = $1 AND (a ILIKE $2 OR b ILIKE $2) AND error IS NOT NULL');
    assert.deepEqual(w.values, [1, '%x%']);
  });

  test('a mismatch between ? and values is a programming error', () => {
    assert.throws(() => new Where('a = ? AND b = ?', 1));
    assert.throws(() => new Where('a = ?', 1, 2));
  });

  test('keyset and offset pages', () => {
    const w = new Where('environment_id = ?', 1).and('id < ?', 50);
    assert.deepEqual(pageQuery('SELECT * FROM alerts', w, { orderBy: 'id DESC', limit: 20 }), [
      'SELECT * FROM alerts WHERE environment_id = $1 AND id < $2 ORDER BY id DESC LIMIT $3',
      [1, 50, 20],
    ]);
    assert.deepEqual(pageQuery('SELECT * FROM t', new Where(), { orderBy: 'id', limit: 10, offset: 30 }), [
      'SELECT * FROM t WHERE TRUE ORDER BY id LIMIT $1 OFFSET $2',
      [10, 30],
    ]);
  });
});
