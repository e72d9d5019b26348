// The methods of grpc.testing.TestService an operation can serve (unary and server streaming),
// written as fw operations: zod schemas, `defineOperation`, a generated .proto whose field numbers
// are grpc's (kept in `generated/`, the committed `protoOut`), so grpc's own clients call it.
import path from 'node:path';
import { defineOperation } from '@fw/validate';
import { z } from 'zod';
import { GrpcError } from '../../src/index.js';

/** The committed `protoOut`: the generated TestService with the interop protos' field numbers. */
export const OPERATIONS_PROTO_OUT = path.join(__dirname, 'generated');

const SERVICE = { service: 'grpc.testing.TestService' } as const;

// Operations have no bytes type; the payloads are zero bytes, which are valid UTF-8, so a string
// field carries them on the wire exactly as grpc's `bytes body = 2` does. `type` (always
// COMPRESSABLE, the enum's zero value) is never sent, and so left out.
const Payload = z.object({ body: z.string().optional() }).meta({ id: 'Payload' });
const EchoStatus = z.object({ code: z.int32().optional(), message: z.string().optional() }).meta({ id: 'EchoStatus' });
const ResponseParameters = z.object({ size: z.int32().optional(), interval_us: z.int32().optional() }).meta({ id: 'ResponseParameters' });

function zeros(size = 0): z.infer<typeof Payload> {
  return { body: '\0'.repeat(size) };
}

/** Echo Status: the status a request asks for; in an operation, a `GrpcError` says it exactly. */
function checkStatus(status: z.infer<typeof EchoStatus> | undefined): void {
  if (status?.code !== undefined && status.code !== 0) throw new GrpcError(status.code, status.message ?? '');
}

function pause(us: number | undefined, signal: AbortSignal): Promise<void> {
  if (us === undefined || us <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, us / 1000);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });
}

/** `EmptyCall`: an empty message in, an empty message out. */
export const emptyCall = defineOperation({
  name: 'emptyCall',
  input: z.object({}),
  output: z.object({}),
  grpc: SERVICE,
  handler: () => ({}),
});

/** `UnaryCall`: a payload of the size asked for, or the status asked for. */
export const unaryCall = defineOperation({
  name: 'unaryCall',
  input: z.object({ response_size: z.int32().optional(), payload: Payload.optional(), response_status: EchoStatus.optional() }),
  output: z.object({ payload: Payload }),
  grpc: SERVICE,
  handler: (input) => {
    checkStatus(input.response_status);
    return { payload: zeros(input.response_size) };
  },
});

/** `StreamingOutputCall`: one event per ResponseParameters, then the status asked for, if any. */
export const streamingOutputCall = defineOperation({
  name: 'streamingOutputCall',
  input: z.object({ response_parameters: z.array(ResponseParameters), payload: Payload.optional(), response_status: EchoStatus.optional() }),
  output: z.object({ payload: Payload }),
  stream: true,
  grpc: SERVICE,
  handler: async function* (input, ctx) {
    for (const parameters of input.response_parameters) {
      await pause(parameters.interval_us, ctx.signal);
      if (ctx.signal.aborted) return;
      yield { payload: zeros(parameters.size) };
    }
    checkStatus(input.response_status);
  },
});

/** The operations, for `app.operation()`. */
export const testOperations = [emptyCall, unaryCall, streamingOutputCall];
