#!/usr/bin/env node
// The `fw` command. A source file, so that package managers can link it before the package is built.
import "../dist/bin/fw.js";
