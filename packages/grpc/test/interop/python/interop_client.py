"""An interop client on grpcio (gRPC's C core): the standard cases, as interop-test-descriptions.md
gives their procedures and assertions, against grpc.testing.TestService.

Usage: interop_client.py --stubs DIR --server_host HOST --server_port PORT --test_cases a,b,c

DIR holds the modules grpc_tools.protoc generated from ../proto (empty_pb2, messages_pb2,
test_pb2, test_pb2_grpc). Prints one JSON line per case: {"case", "ok", "error"?}; exits 0 when
every case passed, 1 otherwise.
"""

import argparse
import json
import queue
import sys
import traceback

SPECIAL_STATUS_MESSAGE = "\t\ntest with whitespace\r\nand Unicode BMP \u263a and non-BMP \U0001f608\t\n"
ECHO_INITIAL = "x-grpc-test-echo-initial"
ECHO_TRAILING = "x-grpc-test-echo-trailing-bin"
INITIAL_VALUE = "test_initial_metadata_value"
TRAILING_VALUE = b"\xab\xab\xab"
# How long one call may take before its case fails (a hung server must not hang the suite).
TIMEOUT = 10.0


class Pipe:
    """A request iterator the case feeds one message at a time (grpc's interop client does the same)."""

    def __init__(self):
        self._queue = queue.Queue()

    def add(self, message):
        self._queue.put(message)

    def close(self):
        self._queue.put(None)

    def __iter__(self):
        return self

    def __next__(self):
        message = self._queue.get()
        if message is None:
            raise StopIteration()
        return message


def check(condition, what):
    if not condition:
        raise AssertionError(what)


def check_status(error, code, details=None):
    check(error.code() == code, "status code: got %s (%r), want %s" % (error.code(), error.details(), code))
    if details is not None:
        check(error.details() == details, "status message: got %r, want %r" % (error.details(), details))


def expect_failure(call):
    try:
        call()
    except Exception as error:  # grpc.RpcError, which is also a grpc.Call
        if hasattr(error, "code"):
            return error
        raise
    raise AssertionError("the call succeeded; a failure was expected")


def zeros(messages, size):
    return messages.Payload(body=b"\x00" * size)


def check_zeros(payload, size):
    check(len(payload.body) == size, "payload body size: got %d, want %d" % (len(payload.body), size))
    check(payload.body == b"\x00" * size, "the payload body is zeros")


def metadata_dict(metadata):
    return {key: value for key, value in (metadata or ())}


def run_cases(grpc, stubs, channel, names):
    empty, messages, test_grpc = stubs
    stub = test_grpc.TestServiceStub(channel)
    unimplemented = test_grpc.UnimplementedServiceStub(channel)
    echo_metadata = ((ECHO_INITIAL, INITIAL_VALUE), (ECHO_TRAILING, TRAILING_VALUE))

    def check_echoed(initial, trailing):
        check(metadata_dict(initial).get(ECHO_INITIAL) == INITIAL_VALUE, "initial metadata echoed: %r" % (initial,))
        check(metadata_dict(trailing).get(ECHO_TRAILING) == TRAILING_VALUE, "trailing metadata echoed: %r" % (trailing,))

    def empty_unary():
        response = stub.EmptyCall(empty.Empty(), timeout=TIMEOUT)
        check(isinstance(response, empty.Empty), "the response is an Empty")

    def large_unary():
        request = messages.SimpleRequest(response_type=messages.COMPRESSABLE, response_size=314159, payload=zeros(messages, 271828))
        check_zeros(stub.UnaryCall(request, timeout=TIMEOUT).payload, 314159)

    def client_streaming():
        requests = (messages.StreamingInputCallRequest(payload=zeros(messages, size)) for size in (27182, 8, 1828, 45904))
        response = stub.StreamingInputCall(requests, timeout=TIMEOUT)
        check(response.aggregated_payload_size == 74922, "aggregated size: got %d" % response.aggregated_payload_size)

    def server_streaming():
        sizes = (31415, 9, 2653, 58979)
        request = messages.StreamingOutputCallRequest(
            response_type=messages.COMPRESSABLE, response_parameters=[messages.ResponseParameters(size=size) for size in sizes]
        )
        responses = list(stub.StreamingOutputCall(request, timeout=TIMEOUT))
        check(len(responses) == 4, "four responses, got %d" % len(responses))
        for response, size in zip(responses, sizes):
            check_zeros(response.payload, size)

    def ping_pong():
        pipe = Pipe()
        responses = stub.FullDuplexCall(pipe, timeout=TIMEOUT)
        for size, body in ((31415, 27182), (9, 8), (2653, 1828), (58979, 45904)):
            pipe.add(messages.StreamingOutputCallRequest(response_parameters=[messages.ResponseParameters(size=size)], payload=zeros(messages, body)))
            check_zeros(next(responses).payload, size)
        pipe.close()
        check(list(responses) == [], "no fifth response")
        check(responses.code() == grpc.StatusCode.OK, "status OK")

    def empty_stream():
        responses = stub.FullDuplexCall(iter([]), timeout=TIMEOUT)
        check(list(responses) == [], "no response")
        check(responses.code() == grpc.StatusCode.OK, "status OK")

    def cancel_after_begin():
        pipe = Pipe()
        future = stub.StreamingInputCall.future(pipe, timeout=TIMEOUT)
        future.cancel()
        check(future.cancelled(), "the call is cancelled")
        check(future.code() == grpc.StatusCode.CANCELLED, "status CANCELLED, got %s" % future.code())
        pipe.close()

    def cancel_after_first_response():
        pipe = Pipe()
        responses = stub.FullDuplexCall(pipe, timeout=TIMEOUT)
        pipe.add(messages.StreamingOutputCallRequest(response_parameters=[messages.ResponseParameters(size=31415)], payload=zeros(messages, 27182)))
        check_zeros(next(responses).payload, 31415)
        responses.cancel()
        check_status(expect_failure(lambda: next(responses)), grpc.StatusCode.CANCELLED)
        pipe.close()

    def timeout_on_sleeping_server():
        pipe = Pipe()
        responses = stub.FullDuplexCall(pipe, timeout=0.001)
        pipe.add(messages.StreamingOutputCallRequest(payload=zeros(messages, 27182)))
        check_status(expect_failure(lambda: next(responses)), grpc.StatusCode.DEADLINE_EXCEEDED)
        pipe.close()

    def custom_metadata():
        request = messages.SimpleRequest(response_type=messages.COMPRESSABLE, response_size=314159, payload=zeros(messages, 271828))
        response, call = stub.UnaryCall.with_call(request, metadata=echo_metadata, timeout=TIMEOUT)
        check_zeros(response.payload, 314159)
        check_echoed(call.initial_metadata(), call.trailing_metadata())

        pipe = Pipe()
        responses = stub.FullDuplexCall(pipe, metadata=echo_metadata, timeout=TIMEOUT)
        pipe.add(messages.StreamingOutputCallRequest(response_parameters=[messages.ResponseParameters(size=314159)], payload=zeros(messages, 271828)))
        pipe.close()
        check_zeros(next(responses).payload, 314159)
        check(list(responses) == [], "one response")
        check_echoed(responses.initial_metadata(), responses.trailing_metadata())

    def status_code_and_message():
        status = messages.EchoStatus(code=2, message="test status message")
        error = expect_failure(lambda: stub.UnaryCall(messages.SimpleRequest(response_status=status), timeout=TIMEOUT))
        check_status(error, grpc.StatusCode.UNKNOWN, "test status message")

        pipe = Pipe()
        responses = stub.FullDuplexCall(pipe, timeout=TIMEOUT)
        pipe.add(messages.StreamingOutputCallRequest(response_status=status))
        pipe.close()
        check_status(expect_failure(lambda: next(responses)), grpc.StatusCode.UNKNOWN, "test status message")

    def special_status_message():
        status = messages.EchoStatus(code=2, message=SPECIAL_STATUS_MESSAGE)
        error = expect_failure(lambda: stub.UnaryCall(messages.SimpleRequest(response_status=status), timeout=TIMEOUT))
        check_status(error, grpc.StatusCode.UNKNOWN, SPECIAL_STATUS_MESSAGE)

    def unimplemented_method():
        error = expect_failure(lambda: stub.UnimplementedCall(empty.Empty(), timeout=TIMEOUT))
        check_status(error, grpc.StatusCode.UNIMPLEMENTED)

    def unimplemented_service():
        error = expect_failure(lambda: unimplemented.UnimplementedCall(empty.Empty(), timeout=TIMEOUT))
        check_status(error, grpc.StatusCode.UNIMPLEMENTED)

    cases = dict(
        (case.__name__, case)
        for case in (
            empty_unary, large_unary, client_streaming, server_streaming, ping_pong, empty_stream,
            cancel_after_begin, cancel_after_first_response, timeout_on_sleeping_server, custom_metadata,
            status_code_and_message, special_status_message, unimplemented_method, unimplemented_service,
        )
    )
    passed = True
    for name in names:
        result = {"case": name, "ok": True}
        try:
            if name not in cases:
                raise AssertionError("no such case")
            cases[name]()
        except Exception as error:
            passed = False
            result = {"case": name, "ok": False, "error": "%s: %s" % (type(error).__name__, error), "trace": traceback.format_exc()}
        print(json.dumps(result), flush=True)
    return passed


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--stubs", required=True)
    parser.add_argument("--server_host", default="127.0.0.1")
    parser.add_argument("--server_port", type=int, required=True)
    parser.add_argument("--test_cases", required=True)
    args = parser.parse_args()
    sys.path.insert(0, args.stubs)

    import grpc
    import empty_pb2
    import messages_pb2
    import test_pb2_grpc

    with grpc.insecure_channel("%s:%d" % (args.server_host, args.server_port)) as channel:
        ok = run_cases(grpc, (empty_pb2, messages_pb2, test_pb2_grpc), channel, args.test_cases.split(","))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
