// The evaluation service of the Go backend (EvalService in backend/desktop/eval.go, generated wrappers), with plain
// types.
import { t } from '../../i18n'
import { EventEval, on } from '../../lib/bus'
import { EvalService as Eval } from '../../lib/generated/services'
import type { EvalRequest, EvalState, Evaluation, Report } from '../../lib/types'

export type { EvalRequest, EvalState }

/** EvaluationRow is what the list shows of a stored evaluation (kb.Evaluation, generated from Go). */
export type EvaluationRow = Pick<Evaluation, 'id' | 'dataset' | 'collection' | 'status' | 'items'>

export interface EvalApi {
  pickDataset(): Promise<string>
  start(r: EvalRequest): Promise<void>
  stop(): Promise<void>
  state(): Promise<EvalState>
  evaluations(): Promise<EvaluationRow[]>
  openReport(id: number): Promise<string>
  onProgress(cb: (s: EvalState) => void): () => void
  searchReport(): Promise<Report | null>
  measureSearch(train: boolean): Promise<Report | null>
  forgetRanker(): Promise<void>
}

export const evalApi: EvalApi = {
  pickDataset: () => Eval.PickDataset(t('dialog.evalQuestions')),
  start: (r) => Eval.Start(r),
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
  onProgress: (cb) => on(EventEval, cb),
  searchReport: () => Eval.SearchReport(),
  measureSearch: (train) => Eval.MeasureSearch(train),
  forgetRanker: () => Eval.ForgetRanker(),
}
