/** `@fw/app/connect`: everything `@fw/connect` exports (its very objects), for apps that install only `@fw/app`. */
export * from '@fw/connect';
