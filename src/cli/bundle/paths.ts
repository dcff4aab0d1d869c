// Where the bundled CLI and its compiled-code cache are written and read.
import path from 'node:path';
import { PROJECT_ROOT } from '../../project';

export const CLI_BUNDLE_PATH = path.join(PROJECT_ROOT, 'dist', 'cli', 'canopy.js');
export const CODE_CACHE_PATH = `${CLI_BUNDLE_PATH}.cache`;
/**
 * The compiled code of a command that asks for help: commander and the command definitions alone,
 * under half the whole cache, which V8 would otherwise spend longer reading than the help takes.
 */
export const HELP_CODE_CACHE_PATH = `${CLI_BUNDLE_PATH}.help-cache`;

/**
 * The Temporal client SDK (client, common and proto, with gRPC and protobufjs), bundled for the
 * commands that reach Temporal: as the 270-odd files it is in node_modules, loading it took a
 * command longer than the rest of its run.
 */
export const TEMPORAL_CLIENT_BUNDLE_PATH = path.join(PROJECT_ROOT, 'dist', 'cli', 'temporal-client.js');
export const TEMPORAL_CLIENT_CODE_CACHE_PATH = `${TEMPORAL_CLIENT_BUNDLE_PATH}.cache`;

/**
 * The wrapper Node gives a CommonJS module, written around the bundle by the build: the CLI compiles
 * the file as it is, without first copying its megabyte and a half into a longer string.
 */
export const MODULE_WRAPPER = { head: '(function (exports, require, module, __filename, __dirname) {', tail: '})' };

/** Set by the build: the CLI writes its compiled code to the cache it read as it exits. */
export const CODE_CACHE_OUT_ENV = 'CANOPY_WRITE_CODE_CACHE';
