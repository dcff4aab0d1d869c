// Where the bundled CLI and its compiled-code cache are written and read.
import path from 'node:path';
import { PROJECT_ROOT } from '../../project';

export const CLI_BUNDLE_PATH = path.join(PROJECT_ROOT, 'dist', 'cli', 'canopy.js');
export const CODE_CACHE_PATH = `${CLI_BUNDLE_PATH}.cache`;

/**
 * The wrapper Node gives a CommonJS module, written around the bundle by the build: the CLI compiles
 * the file as it is, without first copying its megabyte and a half into a longer string.
 */
export const MODULE_WRAPPER = { head: '(function (exports, require, module, __filename, __dirname) {', tail: '})' };

/** Set by the build: the CLI writes its compiled code to the cache as it exits. */
export const CODE_CACHE_OUT_ENV = 'CANOPY_WRITE_CODE_CACHE';
