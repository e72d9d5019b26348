/** `@fw/app/grpc`: everything `@fw/grpc` exports (its very objects), for apps that install only `@fw/app`. */
export * from '@fw/grpc';
