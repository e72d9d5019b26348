import { Application } from '@fw/core';
import { defineOperation } from '@fw/validate';
import { z } from 'zod';
import { openapi, type RequestBodyObject } from '../src/index.js';
import { validateOpenAPI } from './helpers.js';

// An operation with a file input: its body documented as multipart/form-data, the file a binary string.

it('documents a file input as a multipart/form-data body with format: binary', () => {
  const app = new Application();
  app.operation(
    defineOperation({
      name: 'uploadDocument',
      input: z.object({ folder: z.string(), title: z.string(), file: z.file().max(1024), pages: z.array(z.file()).optional() }),
      output: z.object({ size: z.number() }),
      rest: { method: 'POST', path: '/folders/:folder/documents' },
      handler: ({ file }) => ({ size: file.size }),
    }),
  );
  const document = openapi(app, { info: { title: 'Docs', version: '1.0.0' } });
  const body = document.paths['/folders/{folder}/documents']!.post!.requestBody as RequestBodyObject;
  expect(Object.keys(body.content)).toEqual(['multipart/form-data']);
  const schema = body.content['multipart/form-data']!.schema as { properties: Record<string, Record<string, unknown>>; required: string[] };
  expect(Object.keys(schema.properties)).toEqual(['title', 'file', 'pages']);
  expect(schema.properties.file).toMatchObject({ type: 'string', format: 'binary', maxLength: 1024 });
  expect(schema.properties.pages).toMatchObject({ type: 'array', items: { type: 'string', format: 'binary' } });
  expect(schema.required).toEqual(['title', 'file']);
  expect(validateOpenAPI(document)).toEqual([{ valid: true, version: '3.1', errors: null }]);
});
