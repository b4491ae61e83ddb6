import { describe, expect, it } from 'vitest';
import { readMultipart } from '../src/multipart.js';
import { Problem } from '../src/problem.js';

/** A body and its content type as `fetch` sends a FormData. */
async function encoded(form: FormData): Promise<{ type: string; body: Buffer }> {
  const response = new Response(form);
  return { type: response.headers.get('content-type')!, body: Buffer.from(await response.arrayBuffer()) };
}

describe('readMultipart', () => {
  it('should read every part with its name, file name, type and exact bytes', async () => {
    // given a form of two files, one binary, and a field
    const form = new FormData();
    form.append('resources', new Blob(['<bpmn/>'], { type: 'application/xml' }), 'order "v2".bpmn');
    form.append('resources', new Blob([new Uint8Array([0, 13, 10, 45, 45, 255])]), 'raw.bin');
    form.append('tenantId', '<default>');
    const { type, body } = await encoded(form);

    // when it is read
    const parts = readMultipart(type, body);

    // then each part is as sent
    expect(parts.map(({ name, filename }) => [name, filename])).toEqual([
      ['resources', 'order "v2".bpmn'],
      ['resources', 'raw.bin'],
      ['tenantId', undefined],
    ]);
    expect(parts[0]!.data.toString()).toBe('<bpmn/>');
    expect(parts[0]!.contentType).toBe('application/xml');
    expect([...parts[1]!.data]).toEqual([0, 13, 10, 45, 45, 255]);
    expect(parts[2]!.data.toString()).toBe('<default>');
  });

  it('should refuse a body of another media type with a 415', () => {
    expect(() => readMultipart('application/json', Buffer.from('{}'))).toThrow(
      expect.objectContaining({ status: 415 }),
    );
  });

  it('should refuse a body that does not hold together with a 400 saying where', async () => {
    const form = new FormData();
    form.append('resources', new Blob(['x']), 'a.bpmn');
    const { type, body } = await encoded(form);
    const cut = body.subarray(0, body.length - 20);
    const nameless = Buffer.from(body.toString('latin1').replace('name="resources"; ', ''), 'latin1');

    for (const [bytes, why] of [
      [cut, /part 1 has no closing delimiter/],
      [Buffer.from('nothing here'), /it holds no part/],
      [nameless, /part 1 has no Content-Disposition: form-data with a name/],
    ] as const) {
      let thrown: unknown;
      try {
        readMultipart(type, bytes);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(Problem);
      expect((thrown as Problem).status).toBe(400);
      expect((thrown as Problem).detail).toMatch(why);
    }
  });
});
