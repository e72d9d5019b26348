/** `@fw/app/grpc`: everything `@fw/grpc` exports, for apps that install only `@fw/app`. */
export * from '@fw/grpc';
