/** `@fw/app/validate`: everything `@fw/validate` exports, for apps that install only `@fw/app`. */
export * from '@fw/validate';
