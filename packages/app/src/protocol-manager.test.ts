import { Application, isOperation, type Operation } from '@fw/core';
import { OPERATION_BRAND } from '@fw/core/plugin';
import { ProtocolManager } from './protocol-manager.js';

/** The smallest operation app.operation() accepts: a REST route answering its input. */
function echo(name: string): Operation {
  const op = {
    [OPERATION_BRAND]: true as const,
    name,
    input: { kind: 'object' as const, name: undefined, fields: [], source: {} },
    output: { kind: 'scalar' as const, scalar: 'string' as const },
    rest: { method: 'GET' as const, path: `/${name}` },
    middleware: [],
    schemas: { input: undefined, output: undefined },
    execute: (raw: unknown) => Promise.resolve(raw),
  };
  if (!isOperation(op)) throw new Error('not an operation');
  return op;
}

describe('ProtocolManager.registerOperation', () => {
  it("serves the operation through the app's operation() and returns the manager, so calls chain", async () => {
    const app = new Application();
    const manager = new ProtocolManager(undefined, undefined, app);
    expect(manager.registerOperation(echo('first')).registerOperation(echo('second'))).toBe(manager);
    expect(app.getRoutes().map((route) => `${route.method} ${route.path} ${route.meta?.operation?.name}`)).toEqual(['GET /first first', 'GET /second second']);
    expect((await app.inject('/second?word=hi')).json()).toEqual({ word: 'hi' });
  });

  it('throws what app.operation() throws', () => {
    const manager = new ProtocolManager(undefined, undefined, new Application());
    manager.registerOperation(echo('twice'));
    expect(() => manager.registerOperation(echo('twice'))).toThrow('An operation named "twice" is already registered');
  });

  it('says so when the manager was made without its application', () => {
    expect(() => new ProtocolManager(undefined, undefined).registerOperation(echo('lost'))).toThrow(
      'registerOperation: this protocol manager was made without its application; call app.operation(op)',
    );
  });
});
