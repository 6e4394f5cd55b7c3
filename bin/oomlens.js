#!/usr/bin/env node
require("../dist/cli.js");
