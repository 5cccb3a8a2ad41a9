// The evaluation service of the Go backend (EvalService in backend/desktop/eval.go), with plain types.
import * as Eval from '../../../wailsjs/go/desktop/EvalService'
import { desktop } from '../../../wailsjs/go/models'
import { EventsOn } from '../../../wailsjs/runtime/runtime'

export interface EvalRequest {
  dataset: string
  collection: string
  mode: string
  provider: string
  model: string
  judge_provider: string
  judge_model: string
  samples: number
  limit: number
}

export interface EvalState {
  running: boolean
  evaluation: number
  done: number
  total: number
  resumed: number
  error?: string
}

export interface EvaluationRow {
  id: number
  dataset: string
  collection: string
  status: string
  items: number
}

export interface EvalApi {
  pickDataset(): Promise<string>
  start(r: EvalRequest): Promise<void>
  stop(): Promise<void>
  state(): Promise<EvalState>
  evaluations(): Promise<EvaluationRow[]>
  openReport(id: number): Promise<string>
  onProgress(cb: (s: EvalState) => void): () => void
}

export const evalApi: EvalApi = {
  pickDataset: () => Eval.PickDataset(),
  start: (r) => Eval.Start(desktop.EvalRequest.createFrom(r)),
  stop: () => Eval.Stop(),
  state: () => Eval.State(),
  evaluations: async () =>
    ((await Eval.Evaluations()) ?? []).map((e) => ({
      id: e.id,
      dataset: e.dataset,
      collection: e.collection,
      status: e.status,
      items: e.items,
    })),
  openReport: (id) => Eval.OpenReport(id),
  onProgress: (cb) => EventsOn('eval:progress', (s: EvalState) => cb(s)),
}
