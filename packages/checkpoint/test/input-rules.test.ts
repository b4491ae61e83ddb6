import { describe, expect, it } from 'vitest';
import {
  checkText,
  isStorableText,
  LimitExceededError,
  MAX_TEXT_BYTES,
  UnencodableValueError,
  utf8Length,
} from '../src/index.js';

const encoded = (text: string) => new TextEncoder().encode(text).byteLength;

describe('utf8Length', () => {
  it('should count the UTF-8 bytes TextEncoder writes, for 1- to 4-byte characters and mixes of them', () => {
    for (const text of [
      '',
      'a',
      '\u00E9',
      '\u20AC',
      '\u{1F69A}',
      'a\u00E9\u20AC\u{1F69A}\u{10FFFF}\uFFFF',
      'x'.repeat(999),
    ]) {
      expect(utf8Length(text), JSON.stringify(text)).toBe(encoded(text));
    }
  });

  it('should count a lone surrogate as the three bytes of the U+FFFD a driver would store', () => {
    expect(utf8Length('a\uD800')).toBe(encoded('a\uFFFD'));
    expect(utf8Length('\uDC00\uD800')).toBe(6);
  });
});

describe('checkText and isStorableText', () => {
  it('should agree: text is storable exactly when checkText takes it', () => {
    const texts = ['', 'order-1', '\u0000', 'a\uD800', 'x'.repeat(MAX_TEXT_BYTES), 'x'.repeat(MAX_TEXT_BYTES + 1)];
    for (const text of texts) {
      const taken = (() => {
        try {
          checkText('id', text);
          return true;
        } catch {
          return false;
        }
      })();
      expect(isStorableText(text), JSON.stringify(text.slice(0, 8))).toBe(taken);
    }
  });

  it('should measure the limit in UTF-8 bytes, not in characters', () => {
    const emoji = '\u{1F69A}'.repeat(MAX_TEXT_BYTES / 4);
    expect(() => checkText('id', emoji)).not.toThrow();
    expect(() => checkText('id', `${emoji}a`)).toThrow(LimitExceededError);
    expect(isStorableText(`${emoji}a`)).toBe(false);
  });

  it('should refuse what is not a string, and null unless nullable, naming the field', () => {
    expect(() => checkText('meta.businessKey', null, { nullable: true })).not.toThrow();
    expect(() => checkText('instanceId', null)).toThrow(UnencodableValueError);
    expect(() => checkText('instanceId', 42)).toThrow(/instanceId: it is the number 42, not a string/);
    expect(isStorableText(42)).toBe(false);
    expect(isStorableText(undefined)).toBe(true);
  });
});
