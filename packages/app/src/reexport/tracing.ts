/** `@fw/app/tracing`: everything `@fw/tracing` exports, for apps that install only `@fw/app`. */
export * from '@fw/tracing';
