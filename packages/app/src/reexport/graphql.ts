/** `@fw/app/graphql`: everything `@fw/graphql` exports, for apps that install only `@fw/app`. */
export * from '@fw/graphql';
