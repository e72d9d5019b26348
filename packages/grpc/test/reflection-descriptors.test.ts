import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { createFileRegistry, fromBinary, type FileRegistry } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema, type FileDescriptorProto } from '@bufbuild/protobuf/wkt';
import { grpcPlugin } from '../src/index.js';
import { start, type Started } from './helpers.js';
import { operation, t } from './fixtures/operation.js';
import { startOperations } from './operations-helpers.js';

const CATALOG = path.join(__dirname, 'fixtures', 'catalog.proto');
const loaderOptions = { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true };
const reflectionProto = path.join(path.dirname(require.resolve('@grpc/reflection')), '../proto/grpc/reflection/v1/reflection.proto');
const reflectionPackage = grpc.loadPackageDefinition(loadSync(reflectionProto, loaderOptions)) as unknown as {
  grpc: { reflection: { v1: { ServerReflection: grpc.ServiceClientConstructor } } };
};

interface ReflectionResponse {
  list_services_response?: { service: Array<{ name: string }> };
  file_descriptor_response?: { file_descriptor_proto: Buffer[] };
  error_response?: { error_code: number; error_message: string };
}

/** Asks the server's reflection service each request in turn, on one stream. */
async function reflect(target: string, requests: object[]): Promise<ReflectionResponse[]> {
  const reflection = new reflectionPackage.grpc.reflection.v1.ServerReflection(target, grpc.credentials.createInsecure()) as unknown as grpc.Client & {
    ServerReflectionInfo(): grpc.ClientDuplexStream<object, ReflectionResponse>;
  };
  try {
    return await new Promise<ReflectionResponse[]>((resolve, reject) => {
      const responses: ReflectionResponse[] = [];
      const call = reflection.ServerReflectionInfo();
      call.on('data', (response: ReflectionResponse) => {
        responses.push(response);
        if (responses.length === requests.length) call.end();
      });
      call.on('error', reject);
      call.on('end', () => resolve(responses));
      for (const request of requests) call.write(request);
    });
  } finally {
    reflection.close();
  }
}

/**
 * What a strict client does with reflection: fetch the file of every listed service (and the files
 * it depends on), then build a descriptor pool from them. @bufbuild/protobuf's registry checks the
 * descriptors as protoc would: it throws on unresolvable or relative type names and bad map entries.
 */
async function reflectedRegistry(target: string): Promise<FileRegistry> {
  const [listed] = await reflect(target, [{ list_services: '' }]);
  const services = listed!.list_services_response!.service.map((s) => s.name).filter((name) => !name.startsWith('grpc.reflection.'));
  const responses = await reflect(target, services.map((name) => ({ file_containing_symbol: name })));
  const files = new Map<string, FileDescriptorProto>();
  for (const response of responses) {
    expect(response.error_response).toBeUndefined();
    for (const bytes of response.file_descriptor_response!.file_descriptor_proto) {
      const file = fromBinary(FileDescriptorProtoSchema, bytes);
      files.set(file.name, file);
    }
  }
  const registries = [...files.values()].map((file) => createFileRegistry(file, (name) => files.get(name)));
  return createFileRegistry(...registries);
}

describe('reflection serves valid descriptors', () => {
  let server: Started | undefined;

  afterEach(async () => {
    await server?.app.close();
    server = undefined;
  });

  it('serves a grpc.health.v1 descriptor a strict descriptor pool accepts, with StatusesEntry as a map entry', async () => {
    server = await start({ services: { 'fwtest.Echo': {} }, reflection: true });
    const registry = await reflectedRegistry(server.target);
    const health = registry.getService('grpc.health.v1.Health');
    expect(health?.methods.map((m) => m.name)).toEqual(['Check', 'Watch', 'List']);
    const list = registry.getMessage('grpc.health.v1.HealthListResponse');
    const statuses = list!.fields.find((f) => f.name === 'statuses')!;
    expect(statuses.fieldKind).toBe('map');
    expect(list!.proto.nestedType.map((m) => [m.name, m.options?.mapEntry])).toEqual([['StatusesEntry', true]]);
    expect(registry.getEnum('grpc.health.v1.HealthCheckResponse.ServingStatus')?.values.map((v) => v.name)).toContain('SERVING');
  });

  it("serves a user proto's map<string, Message>, nested message, enum and imported type validly", async () => {
    server = await start({ protoPath: CATALOG, services: { 'fwtest.catalog.Catalog': {} }, reflection: true, health: false });
    const registry = await reflectedRegistry(server.target);
    const catalog = registry.getService('fwtest.catalog.Catalog')!;
    expect(catalog.methods.map((m) => [m.name, m.input.typeName, m.output.typeName])).toEqual([
      ['GetShelf', 'fwtest.catalog.ShelfRequest', 'fwtest.catalog.Shelf'],
      ['WatchShelf', 'fwtest.catalog.ShelfRequest', 'fwtest.catalog.Shelf'],
    ]);
    const shelf = registry.getMessage('fwtest.catalog.Shelf')!;
    const books = shelf.fields.find((f) => f.name === 'books')!;
    expect(books.fieldKind).toBe('map');
    expect(books.fieldKind === 'map' && books.mapKind === 'message' ? books.message.typeName : undefined).toBe('fwtest.catalog.Book');
    const counts = shelf.fields.find((f) => f.name === 'counts')!;
    expect(counts.fieldKind).toBe('map');
    expect(shelf.proto.nestedType.map((m) => [m.name, m.options?.mapEntry ?? false]).sort()).toEqual([
      ['BooksEntry', true],
      ['CountsEntry', true],
      ['Label', false],
    ]);
    const mainLabel = shelf.fields.find((f) => f.name === 'main_label')!;
    expect(mainLabel.fieldKind === 'message' ? mainLabel.message.typeName : undefined).toBe('fwtest.catalog.Shelf.Label');
    const book = registry.getMessage('fwtest.catalog.Book')!;
    const genre = book.fields.find((f) => f.name === 'genre')!;
    expect(genre.fieldKind === 'enum' ? genre.enum.typeName : undefined).toBe('fwtest.catalog.Genre');
    const published = book.fields.find((f) => f.name === 'published')!;
    expect(published.fieldKind === 'message' ? published.message.typeName : undefined).toBe('google.protobuf.Timestamp');
  });

  it("serves the operations' generated services, with proto3 optional fields as fields with presence", async () => {
    const getShelf = operation({
      name: 'getShelf',
      input: t.object({ id: t.string(), note: t.optional(t.string()) }),
      output: t.object({ counts: t.map(t.int()), kind: t.enum(['a', 'b'], 'ShelfKind') }, 'Shelf'),
      grpc: { service: 'ops.v1.Shelves' },
      handler: () => ({ counts: {}, kind: 'a' }),
    });
    const ops = await startOperations([getShelf], { reflection: true });
    try {
      const registry = await reflectedRegistry(ops.target);
      expect(registry.getService('ops.v1.Shelves')?.methods.map((m) => [m.name, m.input.typeName, m.output.typeName])).toEqual([['GetShelf', 'ops.v1.GetShelfRequest', 'ops.v1.GetShelfResponse']]);
      const input = registry.getMessage('ops.v1.GetShelfRequest')!;
      const note = input.fields.find((f) => f.name === 'note')!;
      expect(note.proto.proto3Optional).toBe(true);
      expect(note.oneof).toBeUndefined();
      expect(registry.getMessage('ops.v1.Shelf')!.fields.find((f) => f.name === 'counts')!.fieldKind).toBe('map');
    } finally {
      await ops.app.close();
    }
  });

  it('leaves the package definition the server runs on untouched', async () => {
    const definition = loadSync(CATALOG, loaderOptions);
    const before = (definition['fwtest.catalog.Shelf'] as { fileDescriptorProtos: Buffer[] }).fileDescriptorProtos.map((b) => b.toString('base64'));
    const plugin = grpcPlugin({ port: 0, host: '127.0.0.1', packageDefinition: definition, services: { 'fwtest.catalog.Catalog': {} }, reflection: true, onLog: () => undefined });
    const { Application } = await import('@fw/core');
    const app = new Application();
    app.register(plugin);
    await app.listen(0, '127.0.0.1');
    await app.close();
    const after = (definition['fwtest.catalog.Shelf'] as { fileDescriptorProtos: Buffer[] }).fileDescriptorProtos.map((b) => b.toString('base64'));
    expect(after).toEqual(before);
  });
});
