/** This package's version, reported as the meter's instrumentation scope version (a test keeps it equal to package.json). */
export const VERSION = '0.1.0';
