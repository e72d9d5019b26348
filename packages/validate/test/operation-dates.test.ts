import { Application } from '@fw/core';
import { z } from 'zod';
import { defineOperation } from '../src/index.js';

// Date-times cross every protocol as RFC 3339 strings, read by core's one strict parser: an
// impossible date is refused on REST and on the raw input gRPC hands to execute(), as GraphQL's
// DateTime scalar refuses it, never rolled over to the next valid day.

const schedule = defineOperation({
  name: 'schedule',
  input: z.object({ at: z.date() }),
  output: z.object({ at: z.date() }),
  rest: { method: 'POST', path: '/schedule' },
  handler: (input) => input,
});

const app = new Application({ onLog: () => {} });
app.operation(schedule);

const post = (at: string) => app.inject({ method: 'POST', url: '/schedule', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ at }) });

describe('operation date-times', () => {
  it('reads a real RFC 3339 date-time, offset applied, and answers it as ISO 8601', async () => {
    const answer = await post('2024-02-29T12:30:00+02:00');
    expect([answer.statusCode, answer.json()]).toEqual([200, { at: '2024-02-29T10:30:00.000Z' }]);
  });

  it.each(['2024-02-30T00:00:00Z', '2023-02-29T00:00:00Z', '2024-01-01T24:00:00Z', '2024-04-31T10:00:00Z', '2024-01-01T10:60:00Z'])(
    'answers 400 on REST for the impossible %s',
    async (at) => {
      const answer = await post(at);
      expect(answer.statusCode).toBe(400);
      expect(answer.json<{ details: { errors: Array<{ field: string }> } }>().details.errors.map((e) => e.field)).toEqual(['body.at']);
    },
  );

  it('refuses the impossible date in the raw input other protocols pass to execute()', async () => {
    await expect(schedule.execute({ at: '2024-02-30T00:00:00Z' }, { protocol: 'grpc' } as never)).rejects.toMatchObject({ message: 'Validation failed' });
    await expect(schedule.execute({ at: '2024-02-28T00:00:00Z' }, { protocol: 'grpc' } as never)).resolves.toEqual({ at: '2024-02-28T00:00:00.000Z' });
  });
});
