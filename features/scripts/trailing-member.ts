/**
 * @module features/scripts/trailing-member — a member of a JSON object read off the end of its bytes,
 * without parsing the rest. Paged APIs mostly end a page with its cursor (`{"items":[…],"next_cursor":"…"}`):
 * paginate reads it so, and the next page's request leaves while this page is parsed.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const CLOSE_BRACE = 0x7d;
/** Members looked at from the end before giving up. */
const MAX_MEMBERS = 16;

const isSpace = (b: number | undefined) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
/** Bytes of a number, true, false or null. */
const isBareScalar = (b: number | undefined) =>
  b !== undefined && ((b >= 0x30 && b <= 0x39) || (b >= 0x61 && b <= 0x7a) || b === 0x2e || b === 0x2b || b === 0x2d || b === 0x45);

function skipSpaceBack(body: Buffer, i: number): number {
  while (i >= 0 && isSpace(body[i])) i--;
  return i;
}

/** The index of the quote opening the string whose closing quote is at `end`: the first quote before it not escaped (an even run of backslashes before it). */
function stringStart(body: Buffer, end: number): number {
  for (let j = body.lastIndexOf(QUOTE, end - 1); j >= 0; j = body.lastIndexOf(QUOTE, j - 1)) {
    let k = j - 1;
    while (k >= 0 && body[k] === BACKSLASH) k--;
    if ((j - 1 - k) % 2 === 0) return j;
  }
  return -1;
}

function parsed(body: Buffer, from: number, to: number): { value: unknown } | null {
  try {
    return { value: JSON.parse(body.toString('utf8', from, to)) };
  } catch {
    return null;
  }
}

/**
 * The value of `key` when it is one of the scalar members (string, number, true, false, null) that end
 * the top-level object of the JSON text `body`, read backwards from its last byte; undefined when the
 * text does not end with such members, or they do not include the key. For a valid JSON text it is
 * what JSON.parse gives the key (of duplicate keys, the last); anything else may give anything.
 */
export function trailingMember(body: Buffer, key: string): unknown {
  let i = skipSpaceBack(body, body.length - 1);
  if (body[i] !== CLOSE_BRACE) return undefined;
  i = skipSpaceBack(body, i - 1);
  for (let member = 0; member < MAX_MEMBERS; member++) {
    const valueEnd = i + 1;
    let valueStart: number;
    if (body[i] === QUOTE) valueStart = stringStart(body, i);
    else {
      let j = i;
      while (j >= 0 && isBareScalar(body[j])) j--;
      valueStart = j === i ? -1 : j + 1;
    }
    if (valueStart < 0) return undefined;
    i = skipSpaceBack(body, valueStart - 1);
    if (body[i] !== COLON) return undefined;
    i = skipSpaceBack(body, i - 1);
    if (body[i] !== QUOTE) return undefined;
    const keyStart = stringStart(body, i);
    if (keyStart < 0) return undefined;
    const name = parsed(body, keyStart, i + 1);
    if (name?.value === key) return parsed(body, valueStart, valueEnd)?.value;
    i = skipSpaceBack(body, keyStart - 1);
    if (body[i] !== COMMA) return undefined;
    i = skipSpaceBack(body, i - 1);
  }
  return undefined;
}
