/**
 * @module sandbox/isolate/polyfills/text-encoding — `TextEncoder` and `TextDecoder`, UTF-8 only, no
 * streaming.
 */
import { bytesOf, utf8Decode, utf8Encode } from './utf8.js';

export class TextEncoder {
  get encoding(): string {
    return 'utf-8';
  }

  encode(input: unknown = ''): Uint8Array {
    return utf8Encode(input);
  }

  encodeInto(source: unknown, destination: Uint8Array): { read: number; written: number } {
    const str = String(source);
    let read = 0;
    let written = 0;
    for (let i = 0; i < str.length;) {
      const c = str.codePointAt(i)!;
      const width = c > 0xffff ? 2 : 1;
      const bytes = utf8Encode(str.slice(i, i + width));
      if (written + bytes.length > destination.length) break;
      destination.set(bytes, written);
      written += bytes.length;
      read += width;
      i += width;
    }
    return { read, written };
  }
}

export interface TextDecoderOptions {
  fatal?: boolean;
  ignoreBOM?: boolean;
}

export class TextDecoder {
  #fatal: boolean;
  #ignoreBOM: boolean;

  constructor(label: unknown = 'utf-8', options: TextDecoderOptions | null = {}) {
    const l = String(label).trim().toLowerCase();
    if (l !== 'utf-8' && l !== 'utf8' && l !== 'unicode-1-1-utf-8')
      throw new RangeError('The "' + String(label) + '" encoding is not supported (only utf-8 in scripts)');
    this.#fatal = Boolean(options && options.fatal);
    this.#ignoreBOM = Boolean(options && options.ignoreBOM);
  }

  get encoding(): string {
    return 'utf-8';
  }

  get fatal(): boolean {
    return this.#fatal;
  }

  get ignoreBOM(): boolean {
    return this.#ignoreBOM;
  }

  decode(input?: ArrayBuffer | ArrayBufferView): string {
    let bytes = bytesOf(input);
    if (!this.#ignoreBOM && bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) bytes = bytes.subarray(3);
    return utf8Decode(bytes, this.#fatal);
  }
}
