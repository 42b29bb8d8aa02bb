// Standalone mode: this remote on its own origin, with the providers the shell would give it.
import { renderStandalone } from '@aim/shared-kit/standalone';
import { App } from './app.tsx';

renderStandalone(() => <App basename="/" />, import.meta.env.PUBLIC_RUNTIME_CONFIG_URL ?? 'http://localhost:3000/runtime-config.json');
