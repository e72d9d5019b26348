/** `@fw/app/metrics`: everything `@fw/metrics` exports (its very objects), for apps that install only `@fw/app`. */
export * from '@fw/metrics';
