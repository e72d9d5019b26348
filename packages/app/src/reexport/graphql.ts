/** `@fw/app/graphql`: everything `@fw/graphql` exports (its very objects), for apps that install only `@fw/app`. */
export * from '@fw/graphql';
