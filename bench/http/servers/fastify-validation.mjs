// Validation suite (issue 4), Fastify: POST /users echoes the parsed JSON body; POST
// /users/validated declares the same 10 fields as a JSON Schema (`schema.body`, compiled by
// Fastify's default Ajv, formats included) and echoes the validated body.
import Fastify from 'fastify';
import { announce } from './ready.mjs';

const User = {
  type: 'object',
  required: ['name', 'email', 'age', 'active', 'role', 'score', 'tags', 'country', 'zip', 'createdAt'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 100 },
    email: { type: 'string', format: 'email' },
    age: { type: 'integer', minimum: 0, maximum: 150 },
    active: { type: 'boolean' },
    role: { type: 'string', enum: ['user', 'admin'] },
    score: { type: 'number', minimum: 0, maximum: 100 },
    tags: { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 20 } },
    country: { type: 'string', minLength: 2, maxLength: 2 },
    zip: { type: 'string', pattern: '^\\d{5}$' },
    createdAt: { type: 'string', format: 'date-time' },
  },
};

const app = Fastify();
app.post('/users', async (req) => req.body);
app.post('/users/validated', { schema: { body: User } }, async (req) => req.body);

await app.listen({ port: 0, host: '127.0.0.1' });
announce(app.server.address().port, ['post', 'post-validated']);
