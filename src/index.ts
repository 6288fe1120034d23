import { createApp } from './app';

export { KeyLimiter } from './limiter/key-limiter';

const app = createApp();

export default {
  fetch: app.fetch,
} satisfies ExportedHandler<Env>;
