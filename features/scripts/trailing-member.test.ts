import assert from 'node:assert/strict';
import { test } from 'node:test';
import { trailingMember } from './trailing-member.js';

const read = (text: string, key = 'next_cursor') => trailingMember(Buffer.from(text), key);

test("a page's trailing cursor is read off its end, as JSON.parse gives it", () => {
  assert.equal(read('{"items":[{"id":"1"}],"next_cursor":"b2Zmc2V0OjEwMDA"}'), 'b2Zmc2V0OjEwMDA');
  assert.equal(read('{"items":[],"next_cursor":null}'), null);
  assert.equal(read(' {\n  "items": [],\n  "next_cursor" : 1500 ,\n  "has_more" : true\n}\n'), 1500);
  assert.equal(read('{"data":[1],"next_cursor":"a\\"b\\\\","total":-1.5e3}'), 'a"b\\');
  assert.equal(read('{"next_cursor":"é✓","x":false}'), 'é✓');
  // Of duplicate keys JSON.parse keeps the last.
  assert.equal(read('{"next_cursor":"1","items":[],"next_cursor":"2"}'), '2');
  assert.equal(read('{"items":[],"next":{"next_cursor":"x"}}', 'next'), undefined);
});

test('nothing is read unless the key is among the scalar members that end the top-level object', () => {
  // The cursor before the items, or only inside them: undefined (the page is parsed first, as before).
  assert.equal(read('{"next_cursor":"top","items":[{"id":"1"}]}'), undefined);
  assert.equal(read('{"items":[{"id":"1","next_cursor":"inner"}]}'), undefined);
  assert.equal(read('{"items":[],"meta":{"next_cursor":"nested"}}'), undefined);
  // A string ending like a member, inside the last item: still inside the array.
  assert.equal(read('{"items":["\\",\\"next_cursor\\":\\"fake\\"}"]}'), undefined);
  assert.equal(read('[{"next_cursor":"x"}]'), undefined);
  assert.equal(read('{"items":[],"other":"x"}'), undefined);
  assert.equal(read('not json'), undefined);
  assert.equal(read(''), undefined);
});

test('over many generated pages, whatever is read equals what JSON.parse gives the key', () => {
  let seed = 7;
  const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
  const strings = ['', 'a', 'q"uote', 'back\\slash', 'both\\"', '\\\\', '"', 'next_cursor', '","next_cursor":"x', 'ü✓\u2028', '}', ':'];
  const scalar = (): unknown => [() => strings[rnd(strings.length)], () => rnd(1000) - 500, () => rnd(10) / 4, () => null, () => true, () => false][rnd(6)]!();
  const value = (depth: number): unknown => {
    if (depth > 2 || rnd(3) === 0) return scalar();
    if (rnd(2) === 0) return Array.from({ length: rnd(3) }, () => value(depth + 1));
    return Object.fromEntries(Array.from({ length: rnd(3) }, () => [strings[rnd(strings.length)]!, value(depth + 1)]));
  };
  let readable = 0;
  for (let n = 0; n < 3000; n++) {
    const members: string[] = [];
    for (let m = rnd(5); m >= 0; m--) {
      const key = rnd(3) === 0 ? 'next_cursor' : strings[rnd(strings.length)]!;
      members.push(`${JSON.stringify(key)}${' '.repeat(rnd(2))}:${' '.repeat(rnd(2))}${JSON.stringify(rnd(2) ? scalar() : value(0))}`);
    }
    const text = `{${members.join(rnd(2) ? ',' : ' ,\n ')}}${rnd(2) ? '\n' : ''}`;
    const got = read(text);
    if (got === undefined) continue;
    readable++;
    assert.deepEqual(got, (JSON.parse(text) as Record<string, unknown>)['next_cursor'], text);
  }
  assert.ok(readable > 300, `only ${readable} pages read`);
});
