import { defineConfig, type Plugin } from 'vite'
import react from '@vitejs/plugin-react'

// The Content-Security-Policy in index.html forbids inline scripts. Vite's dev server (wails dev) injects an inline
// React-refresh preamble, so only there, never in a build, the policy also allows inline scripts.
const devServerCSP: Plugin = {
  name: 'proofglass-dev-server-csp',
  apply: 'serve',
  transformIndexHtml: (html) => html.replace("script-src 'self'", "script-src 'self' 'unsafe-inline'"),
}

export default defineConfig({
  plugins: [react(), devServerCSP],
  build: { outDir: 'dist', emptyOutDir: true, chunkSizeWarningLimit: 2000 },
  test: { environment: 'jsdom', globals: true, include: ['src/**/*.test.{ts,tsx}'], setupFiles: ['src/test/setup.ts'] },
})
