/** `@fw/app/tracing`: everything `@fw/tracing` exports (its very objects), for apps that install only `@fw/app`. */
export * from '@fw/tracing';
