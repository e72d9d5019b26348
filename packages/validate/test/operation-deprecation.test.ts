import { z } from 'zod';
import { defineOperation } from '../src/index.js';

// The definition keys of schema evolution: how GraphQL takes the arguments, an operation's
// deprecation, and the old names a renamed operation is still served under.

const Input = z.object({ id: z.string() });
const Output = z.object({ id: z.string() });
const handler = ({ id }: { id: string }): { id: string } => ({ id });

/** A valid definition with `change` applied. */
function define(change: Record<string, unknown>): unknown {
  return defineOperation({ name: 'getBook', input: Input, output: Output, handler, ...change } as never);
}

function refused(change: Record<string, unknown>, message: string): void {
  expect(() => define(change)).toThrow(TypeError);
  expect(() => define(change)).toThrow(message);
}

describe('defineOperation() graphql.args', () => {
  it('keeps graphql.args "flat" or "input" on the operation', () => {
    expect(define({ graphql: { type: 'mutation', args: 'flat' } })).toMatchObject({ graphql: { type: 'mutation', args: 'flat' } });
    expect(define({ graphql: { type: 'query', args: 'input' } })).toMatchObject({ graphql: { type: 'query', args: 'input' } });
  });

  it('leaves args out when the definition does', () => {
    expect((define({ graphql: { type: 'query' } }) as { graphql: object }).graphql).toEqual({ type: 'query' });
  });

  it('refuses any other value of graphql.args', () => {
    refused({ graphql: { type: 'query', args: 'nested' } }, 'defineOperation("getBook"): graphql.args must be "flat" or "input", got "nested"');
    refused({ graphql: { type: 'query', args: true } }, 'graphql.args must be "flat" or "input", got true');
  });
});

describe('defineOperation() deprecation', () => {
  it('marks the operation deprecated, with its reason when given', () => {
    expect(define({ deprecated: true })).toMatchObject({ deprecated: true });
    expect(define({ deprecated: true, deprecationReason: 'use findBook' })).toMatchObject({ deprecated: true, deprecationReason: 'use findBook' });
  });

  it('counts a reason alone as deprecated, as a field\'s .meta() does', () => {
    expect(define({ deprecationReason: 'use findBook' })).toMatchObject({ deprecated: true, deprecationReason: 'use findBook' });
  });

  it('leaves an operation not deprecated without either key', () => {
    const op = define({}) as Record<string, unknown>;
    expect(op.deprecated).toBeUndefined();
    expect(op.deprecationReason).toBeUndefined();
    expect(define({ deprecated: false })).not.toHaveProperty('deprecated', true);
  });

  it('refuses a deprecation that is not a boolean, or a reason that is not a non-empty string', () => {
    refused({ deprecated: 'yes' }, 'defineOperation("getBook"): deprecated must be true or false, got "yes"');
    refused({ deprecationReason: '' }, 'deprecationReason must be a non-empty string');
    refused({ deprecationReason: 3 }, 'deprecationReason must be a non-empty string');
    refused({ deprecated: false, deprecationReason: 'old' }, 'deprecationReason is for a deprecated operation: drop deprecated: false');
  });
});

describe('defineOperation() aliases', () => {
  it('keeps the old names, frozen', () => {
    const op = define({ aliases: ['fetchBook', 'bookById'] }) as { aliases: readonly string[] };
    expect(op.aliases).toEqual(['fetchBook', 'bookById']);
    expect(Object.isFrozen(op.aliases)).toBe(true);
  });

  it('has no aliases unless given', () => {
    expect(define({})).not.toHaveProperty('aliases');
  });

  it('refuses an alias that is not an operation name, repeats one, or is the name itself', () => {
    refused({ aliases: 'fetchBook' }, 'defineOperation("getBook"): aliases must be a list of the operation\'s former names');
    refused({ aliases: ['fetch-book'] }, 'aliases[0] must match /^[_A-Za-z][_0-9A-Za-z]*$/ (a former operation name), got "fetch-book"');
    refused({ aliases: ['getBook'] }, 'aliases[0] is the operation\'s own name');
    refused({ aliases: ['a', 'a'] }, 'aliases[1] "a" is given twice');
  });
});
