import { create, createFileRegistry, fromBinary, toBinary, toJson, type DescMessage, type FileRegistry, type JsonValue } from '@bufbuild/protobuf';
import {
  anyPack,
  FieldDescriptorProto_Label,
  FieldDescriptorProto_Type,
  file_google_protobuf_any,
  FileDescriptorProtoSchema,
  FileDescriptorSetSchema,
  type DescriptorProto,
  type FileDescriptorProto,
} from '@bufbuild/protobuf/wkt';

/** protoc's JSON name of a field: each letter after an underscore upper-cased, the underscores dropped (`price_cents` → `priceCents`). */
function protocJsonName(name: string): string {
  return name.replace(/_+(.?)/g, (_, next: string) => next.toUpperCase());
}

/**
 * Fills the `json_name`s protobufjs leaves empty, as protoc fills every one (and @bufbuild/protobuf
 * reads it as written): lowerCamelCase, or the name the .proto gave.
 */
function fillJsonNames(messages: readonly DescriptorProto[]): void {
  for (const message of messages) {
    for (const field of message.field) if (field.jsonName === '') field.jsonName = protocJsonName(field.name);
    fillJsonNames(message.nestedType);
  }
}

/** The registry of the generated files (each a serialized FileDescriptorProto, as `describeOperations` gives them). */
export function registryOf(descriptors: readonly Uint8Array[]): FileRegistry {
  const files = descriptors.map((bytes) => fromBinary(FileDescriptorProtoSchema, bytes));
  for (const file of files) fillJsonNames(file.messageType);
  return createFileRegistry(create(FileDescriptorSetSchema, { file: files }));
}

const { OPTIONAL, REPEATED } = FieldDescriptorProto_Label;
const { STRING, INT32, MESSAGE } = FieldDescriptorProto_Type;

/** `google.rpc.Status` and `google.rpc.BadRequest`, as google/rpc/status.proto and error_details.proto define them (the fields used here). */
const RPC_FILE: FileDescriptorProto = create(FileDescriptorProtoSchema, {
  name: 'fw/connect/google_rpc.proto',
  package: 'google.rpc',
  syntax: 'proto3',
  dependency: ['google/protobuf/any.proto'],
  messageType: [
    {
      name: 'Status',
      field: [
        { name: 'code', number: 1, label: OPTIONAL, type: INT32, jsonName: 'code' },
        { name: 'message', number: 2, label: OPTIONAL, type: STRING, jsonName: 'message' },
        { name: 'details', number: 3, label: REPEATED, type: MESSAGE, typeName: '.google.protobuf.Any', jsonName: 'details' },
      ],
    },
    {
      name: 'BadRequest',
      field: [{ name: 'field_violations', number: 1, label: REPEATED, type: MESSAGE, typeName: '.google.rpc.BadRequest.FieldViolation', jsonName: 'fieldViolations' }],
      nestedType: [
        {
          name: 'FieldViolation',
          field: [
            { name: 'field', number: 1, label: OPTIONAL, type: STRING, jsonName: 'field' },
            { name: 'description', number: 2, label: OPTIONAL, type: STRING, jsonName: 'description' },
          ],
        },
      ],
    },
  ],
});

let rpc: { status: DescMessage; badRequest: DescMessage } | undefined;
function rpcTypes(): { status: DescMessage; badRequest: DescMessage } {
  if (rpc === undefined) {
    const registry = createFileRegistry(RPC_FILE, (name) => (name === 'google/protobuf/any.proto' ? file_google_protobuf_any : undefined));
    rpc = { status: registry.getMessage('google.rpc.Status')!, badRequest: registry.getMessage('google.rpc.BadRequest')! };
  }
  return rpc;
}

/** One field a request got wrong. */
export interface FieldViolation {
  readonly field: string;
  readonly description: string;
}

/** A `google.rpc.BadRequest` of the violations: its bytes and its JSON (Connect's `debug`). */
export function badRequest(violations: readonly FieldViolation[]): { bytes: Uint8Array; json: JsonValue } {
  const { badRequest: schema } = rpcTypes();
  const message = create(schema, { fieldViolations: violations.map((v) => ({ field: v.field, description: v.description })) });
  return { bytes: toBinary(schema, message), json: toJson(schema, message) };
}

/** A serialized `google.rpc.Status` (gRPC-Web's `grpc-status-details-bin`) carrying a BadRequest of the violations. */
export function badRequestStatus(code: number, message: string, violations: readonly FieldViolation[]): Uint8Array {
  const { status: schema, badRequest: detail } = rpcTypes();
  const inner = create(detail, { fieldViolations: violations.map((v) => ({ field: v.field, description: v.description })) });
  return toBinary(schema, create(schema, { code, message, details: [anyPack(detail, inner)] }));
}
