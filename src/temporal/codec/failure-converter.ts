// Loaded by path (the SDK's `failureConverterPath`): failures keep their message and stack trace in
// encoded attributes, so the payload codec encrypts them with the rest of the history.
import { DefaultFailureConverter } from '@temporalio/common';

export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
