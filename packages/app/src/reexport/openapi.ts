/** `@fw/app/openapi`: everything `@fw/openapi` exports (its very objects), for apps that install only `@fw/app`. */
export * from '@fw/openapi';
