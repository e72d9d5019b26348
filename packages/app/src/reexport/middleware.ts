/** `@fw/app/middleware`: everything `@fw/middleware` exports, for apps that install only `@fw/app`. */
export * from '@fw/middleware';
