/**
 * @module test/assert — assertions the standard `node:assert` lacks.
 */
import assert from 'node:assert/strict';

/** The error `p` rejects with (fails the test if it resolves), for assertions on its fields. */
export async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  assert.fail('expected a rejection');
}
