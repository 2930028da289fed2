// Input that JSON and URLs allow but the service must not take in. A NUL character (U+0000)
// cannot be stored in PostgreSQL text and a lone UTF-16 surrogate cannot be written as UTF-8
// (it would be stored altered); both are refused, naming the field, before anything reads them.
// A JSON object with the same key twice is refused too: JSON.parse keeps the last, while a proxy
// or a log reader that keeps the first would see another amount or another beneficiary.

/** Which field, if any, holds a string (or a key) that cannot be stored as it was sent. */
export function findUnstorableString(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return isStorable(value) ? undefined : path;
  if (typeof value !== 'object' || value === null) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findUnstorableString(value[i], `${path}[${i}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const [key, item] of Object.entries(value)) {
    const at = path ? `${path}.${key}` : key;
    if (!isStorable(key)) return at;
    const found = findUnstorableString(item, at);
    if (found !== undefined) return found;
  }
  return undefined;
}

function isStorable(text: string): boolean {
  return !text.includes('\u0000') && text.isWellFormed();
}

/** A JSON text can carry NUL or a lone surrogate only as a \u escape: most bodies skip the walk. */
const RISKY_ESCAPE = /\\u(?:0000|[dD][89a-fA-F])/;

export function mayHoldUnstorableString(jsonText: string): boolean {
  return RISKY_ESCAPE.test(jsonText);
}

/** In a URL, NUL arrives percent-encoded (raw control characters are refused by the HTTP parser). */
export function urlMayHoldNul(url: string): boolean {
  return url.includes('%00');
}

/** How deep a JSON body may nest: the contract's requests nest three levels; this leaves room. */
export const JSON_DEPTH_MAX = 32;

/**
 * Whether the JSON text nests objects and arrays deeper than `depthMax`. Read before the text is
 * parsed, so that no walk over the value (the guards below, validation) recurses without bound.
 */
export function nestsDeeperThan(jsonText: string, depthMax: number): boolean {
  let depth = 0;
  for (let i = 0; i < jsonText.length; i++) {
    const c = jsonText.charCodeAt(i);
    if (c === QUOTE) i = stringEnd(jsonText, i);
    else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > depthMax) return true;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) depth--;
  }
  return false;
}

interface Frame {
  /** The keys seen so far in an object; undefined for an array. */
  keys: Set<string> | undefined;
  path: string;
  index: number;
  lastKey: string;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The path of the first key that an object of this JSON text repeats ("sender.firstName",
 * "items[2].id"), or undefined. The text must already have parsed: only the structure is read.
 */
export function findDuplicateKey(jsonText: string): string | undefined {
  const stack: Frame[] = [];
  let expectKey = false;
  for (let i = 0; i < jsonText.length; i++) {
    const c = jsonText.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(jsonText, i);
      const top = stack[stack.length - 1];
      if (expectKey && top?.keys) {
        const raw = jsonText.slice(i + 1, end);
        const key = raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw;
        if (top.keys.has(key)) return childPath(top.path, key);
        top.keys.add(key);
        top.lastKey = key;
      }
      expectKey = false;
      i = end;
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      const parent = stack[stack.length - 1];
      const path = parent === undefined ? '' : parent.keys ? childPath(parent.path, parent.lastKey) : `${parent.path}[${parent.index}]`;
      stack.push({ keys: c === 0x7b ? new Set() : undefined, path, index: 0, lastKey: '' });
      expectKey = c === 0x7b;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      stack.pop();
    } else if (c === 0x2c /* , */) {
      const top = stack[stack.length - 1];
      if (top?.keys) expectKey = true;
      else if (top) top.index++;
    }
  }
  return undefined;
}

function childPath(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

/** The index of the quote that closes the string opening at `start`. */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === BACKSLASH) i++;
    else if (c === QUOTE) return i;
  }
  return text.length;
}
