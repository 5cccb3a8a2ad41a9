// The settings' calls to the Go backend (SettingsService in backend/desktop/settings.go, generated wrappers) and the
// progress of model pulls, with lists never null.
import { EventPull, on } from '../../lib/bus'
import { hasBackend, SettingsService } from '../../lib/generated/services'
import type { ModelInfo, ProbeResult, Provider, ProviderResult, PullEvent, Rerank, RerankTest, Settings } from '../../lib/types'

export const settingsApi = {
  settings: (): Promise<Settings> => SettingsService.Settings(),
  saveSettings: (s: Settings): Promise<void> => SettingsService.SaveSettings(s),
  setAPIKey: (profile: string, key: string): Promise<void> => SettingsService.SetAPIKey(profile, key),
  // apiKey: a key typed and not saved; the stored key is used by the backend only for the profile's saved URL.
  testProvider: (p: Provider, apiKey = ''): Promise<ProviderResult> => SettingsService.TestProvider(p, apiKey),
  listModels: async (p: Provider, apiKey = ''): Promise<ModelInfo[]> => (await SettingsService.ListModels(p, apiKey)) ?? [],
  probeModel: async (p: Provider, model: string, mode: string): Promise<ProbeResult[]> =>
    (await SettingsService.ProbeModel(p, model, mode)) ?? [],
  pullModel: (p: Provider, name: string): Promise<void> => SettingsService.PullModel(p, name),
  // The reranker as edited; the backend runs it through its saved profile (URL and stored key).
  testReranker: (r: Rerank): Promise<RerankTest> => SettingsService.TestReranker(r),
}

/** onPullProgress subscribes to the progress of Ollama pulls; returns the unsubscribe function. */
export function onPullProgress(cb: (e: PullEvent) => void): () => void {
  if (!hasBackend()) return () => {}
  return on(EventPull, cb)
}
