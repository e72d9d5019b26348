import type { Options } from 'tsup';
export declare function library(overrides?: Options): Options | Options[];
