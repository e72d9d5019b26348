/** `@fw/app/middleware`: everything `@fw/middleware` exports (its very objects), for apps that install only `@fw/app`. */
export * from '@fw/middleware';
