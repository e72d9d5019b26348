import { checkOptions } from './check-options.js';

describe('checkOptions', () => {
  const accepted = ['port', 'host', 'middleware'];

  it('accepts an object whose every key is accepted, and an empty one', () => {
    expect(() => checkOptions({ port: 1, host: 'h' }, accepted, { owner: 'x' })).not.toThrow();
    expect(() => checkOptions({}, [], { owner: 'x' })).not.toThrow();
  });

  it('names the key, the one meant and the accepted names, in a TypeError', () => {
    expect(() => checkOptions({ prot: 1 }, accepted, { owner: 'myPlugin' })).toThrow(
      new TypeError('myPlugin: unknown option "prot"; did you mean "port"? The accepted options are: port, host, middleware'),
    );
    expect(() => checkOptions({ colour: 1 }, new Set(accepted), { owner: 'myPlugin' })).toThrow('myPlugin: unknown option "colour"; the accepted options are: port, host, middleware');
  });

  it('names a nested key with its path, and lists the keys of that path', () => {
    expect(() => checkOptions({ totl: 1 }, ['perConnection', 'total'], { owner: 'gRPC config', path: 'maxHealthWatches' })).toThrow(
      'gRPC config: unknown option "maxHealthWatches.totl"; did you mean "total"? The accepted keys of maxHealthWatches are: perConnection, total',
    );
  });

  it('says a hint instead, for a key that has one', () => {
    expect(() => checkOptions({ hostname: 'h' }, accepted, { owner: 'createApp', hints: { hostname: 'did you mean "host"?' } })).toThrow('createApp: unknown option "hostname": did you mean "host"?');
    // A hint is looked up as an own key only.
    expect(() => checkOptions({ toString: 1 }, accepted, { owner: 'createApp', hints: {} })).toThrow('createApp: unknown option "toString"; the accepted options are');
  });

  it('words the kind of key and the list as the caller says, and throws the error it names', () => {
    const limits = { owner: 'GraphQL config', kind: 'limit', listing: (names: string) => `known limits are ${names}.` };
    expect(() => checkOptions({ maxDepht: 1 }, ['maxDepth', 'maxAliases'], limits)).toThrow('GraphQL config: unknown limit "maxDepht"; did you mean "maxDepth"? Known limits are maxDepth, maxAliases.');
    expect(() => checkOptions({ colour: 1 }, ['maxDepth'], limits)).toThrow('GraphQL config: unknown limit "colour"; known limits are maxDepth.');
    let thrown: unknown;
    try {
      checkOptions({ prot: 1 }, accepted, { owner: 'gRPC config', error: Error });
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(Error);
    expect(thrown).not.toBeInstanceOf(TypeError);
  });
});
