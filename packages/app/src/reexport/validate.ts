/** `@fw/app/validate`: everything `@fw/validate` exports (its very objects), for apps that install only `@fw/app`. */
export * from '@fw/validate';
