import { buildSchema, parse, type ExecutionResult } from 'graphql';
import * as jit from 'graphql-jit';
import { loadJit } from './jit-loader.js';

const schema = buildSchema('type Query { hello(name: String): String, n: Int }');
schema.getQueryType()!.getFields().hello!.resolve = (_source, { name }: { name?: string }) => `hi ${name ?? 'you'}`;
const root = { n: 3 };

/** Compiles `query` with `module`, runs it, and counts the calls of the global `Function` meanwhile. */
function compileAndRun(module: typeof jit, query: string): { result: ExecutionResult; globalFunctionCalls: number; json: string } {
  const spy = jest.spyOn(globalThis, 'Function');
  try {
    const compiled = module.compileQuery(schema, parse(query), undefined, { customJSONSerializer: true });
    if (!module.isCompiledQuery(compiled)) throw new Error('not compiled');
    const result = compiled.query(root, {}, { name: 'Ada' }) as ExecutionResult;
    return { result, globalFunctionCalls: spy.mock.calls.length, json: compiled.stringify(result) };
  } finally {
    spy.mockRestore();
  }
}

describe('loadJit', () => {
  it('loads graphql-jit whose generated code never calls the global Function (so V8 keeps none of it in its eval cache)', () => {
    const loaded = loadJit() as unknown as typeof jit;
    const query = 'query ($name: String) { hello(name: $name) n }';
    const own = compileAndRun(loaded, query);
    expect(own.result).toEqual({ data: { hello: 'hi Ada', n: 3 } });
    expect(own.json).toBe('{"data":{"hello":"hi Ada","n":3}}');
    expect(own.globalFunctionCalls).toBe(0);
    // The check sees the calls: graphql-jit as node loads it compiles with the global Function.
    expect(compileAndRun(jit, query).globalFunctionCalls).toBeGreaterThan(0);
  });

  it('changes nothing global', () => {
    const before = Object.getOwnPropertyDescriptor(globalThis, 'Function');
    loadJit().compileQuery(schema, parse('{ n }'));
    expect(Object.getOwnPropertyDescriptor(globalThis, 'Function')).toEqual(before);
  });
});
