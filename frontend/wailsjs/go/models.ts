export namespace config {
	
	export class AgentDefaults {
	    provider: string;
	    mode: string;
	    think: boolean;
	    top_k: number;
	    vrag_max_steps?: number;
	    vimrag_max_steps?: number;
	    follow_ups?: string;
	
	    static createFrom(source: any = {}) {
	        return new AgentDefaults(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.provider = source["provider"];
	        this.mode = source["mode"];
	        this.think = source["think"];
	        this.top_k = source["top_k"];
	        this.vrag_max_steps = source["vrag_max_steps"];
	        this.vimrag_max_steps = source["vimrag_max_steps"];
	        this.follow_ups = source["follow_ups"];
	    }
	}
	export class Cache {
	    pages_mb: number;
	
	    static createFrom(source: any = {}) {
	        return new Cache(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.pages_mb = source["pages_mb"];
	    }
	}
	export class Transcription {
	    provider: string;
	    model: string;
	
	    static createFrom(source: any = {}) {
	        return new Transcription(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.provider = source["provider"];
	        this.model = source["model"];
	    }
	}
	export class Ingest {
	    ocr_languages: string[];
	    clip_seconds: number;
	    workers: number;
	    transcription: Transcription;
	
	    static createFrom(source: any = {}) {
	        return new Ingest(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.ocr_languages = source["ocr_languages"];
	        this.clip_seconds = source["clip_seconds"];
	        this.workers = source["workers"];
	        this.transcription = this.convertValues(source["transcription"], Transcription);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Sampling {
	    temperature?: number;
	    top_p?: number;
	    max_tokens?: number;
	    seed?: number;
	
	    static createFrom(source: any = {}) {
	        return new Sampling(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.temperature = source["temperature"];
	        this.top_p = source["top_p"];
	        this.max_tokens = source["max_tokens"];
	        this.seed = source["seed"];
	    }
	}
	export class Provider {
	    name: string;
	    kind: string;
	    base_url: string;
	    chat_model: string;
	    embed_model: string;
	    context_length?: number;
	    sampling: Sampling;
	
	    static createFrom(source: any = {}) {
	        return new Provider(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.kind = source["kind"];
	        this.base_url = source["base_url"];
	        this.chat_model = source["chat_model"];
	        this.embed_model = source["embed_model"];
	        this.context_length = source["context_length"];
	        this.sampling = this.convertValues(source["sampling"], Sampling);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	export class Settings {
	    version: number;
	    providers: Provider[];
	    agent: AgentDefaults;
	    ingest: Ingest;
	    theme: string;
	    cache: Cache;
	
	    static createFrom(source: any = {}) {
	        return new Settings(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.version = source["version"];
	        this.providers = this.convertValues(source["providers"], Provider);
	        this.agent = this.convertValues(source["agent"], AgentDefaults);
	        this.ingest = this.convertValues(source["ingest"], Ingest);
	        this.theme = source["theme"];
	        this.cache = this.convertValues(source["cache"], Cache);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace desktop {
	
	export class AskRequest {
	    conversation_id: number;
	    question: string;
	    documents: number[];
	    mode: string;
	    think?: boolean;
	    collection: string;
	    provider: string;
	    model: string;
	    temperature?: number;
	    top_p?: number;
	    max_tokens?: number;
	    seed?: number;
	    max_steps?: number;
	    top_k?: number;
	    context_length?: number;
	
	    static createFrom(source: any = {}) {
	        return new AskRequest(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.conversation_id = source["conversation_id"];
	        this.question = source["question"];
	        this.documents = source["documents"];
	        this.mode = source["mode"];
	        this.think = source["think"];
	        this.collection = source["collection"];
	        this.provider = source["provider"];
	        this.model = source["model"];
	        this.temperature = source["temperature"];
	        this.top_p = source["top_p"];
	        this.max_tokens = source["max_tokens"];
	        this.seed = source["seed"];
	        this.max_steps = source["max_steps"];
	        this.top_k = source["top_k"];
	        this.context_length = source["context_length"];
	    }
	}
	export class AskStarted {
	    run_id: string;
	    conversation_id: number;
	
	    static createFrom(source: any = {}) {
	        return new AskStarted(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.run_id = source["run_id"];
	        this.conversation_id = source["conversation_id"];
	    }
	}
	export class EvalRequest {
	    dataset: string;
	    collection: string;
	    mode: string;
	    provider: string;
	    model: string;
	    judge_provider: string;
	    judge_model: string;
	    samples: number;
	    limit: number;
	
	    static createFrom(source: any = {}) {
	        return new EvalRequest(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.dataset = source["dataset"];
	        this.collection = source["collection"];
	        this.mode = source["mode"];
	        this.provider = source["provider"];
	        this.model = source["model"];
	        this.judge_provider = source["judge_provider"];
	        this.judge_model = source["judge_model"];
	        this.samples = source["samples"];
	        this.limit = source["limit"];
	    }
	}
	export class EvalState {
	    running: boolean;
	    evaluation: number;
	    done: number;
	    total: number;
	    resumed: number;
	    error?: string;
	
	    static createFrom(source: any = {}) {
	        return new EvalState(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.running = source["running"];
	        this.evaluation = source["evaluation"];
	        this.done = source["done"];
	        this.total = source["total"];
	        this.resumed = source["resumed"];
	        this.error = source["error"];
	    }
	}
	export class PageRef {
	    id: number;
	    document_id: number;
	    ordinal: number;
	    kind: string;
	    width: number;
	    height: number;
	    t_start_ms?: number;
	    t_end_ms?: number;
	    text_source: string;
	    thumb?: string;
	
	    static createFrom(source: any = {}) {
	        return new PageRef(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.document_id = source["document_id"];
	        this.ordinal = source["ordinal"];
	        this.kind = source["kind"];
	        this.width = source["width"];
	        this.height = source["height"];
	        this.t_start_ms = source["t_start_ms"];
	        this.t_end_ms = source["t_end_ms"];
	        this.text_source = source["text_source"];
	        this.thumb = source["thumb"];
	    }
	}
	export class Status {
	    version: string;
	    data_dir: string;
	    schema_version: number;
	    collections: number;
	    documents: number;
	
	    static createFrom(source: any = {}) {
	        return new Status(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.version = source["version"];
	        this.data_dir = source["data_dir"];
	        this.schema_version = source["schema_version"];
	        this.collections = source["collections"];
	        this.documents = source["documents"];
	    }
	}

}

export namespace kb {
	
	export class Collection {
	    id: number;
	    name: string;
	    text_embedder: string;
	    text_dim: number;
	    image_embedder?: string;
	    image_dim?: number;
	    // Go type: time
	    created_at: any;
	    documents: number;
	    units: number;
	
	    static createFrom(source: any = {}) {
	        return new Collection(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.name = source["name"];
	        this.text_embedder = source["text_embedder"];
	        this.text_dim = source["text_dim"];
	        this.image_embedder = source["image_embedder"];
	        this.image_dim = source["image_dim"];
	        this.created_at = this.convertValues(source["created_at"], null);
	        this.documents = source["documents"];
	        this.units = source["units"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Conversation {
	    id: number;
	    title: string;
	    collection_id?: number;
	    // Go type: time
	    created_at: any;
	    // Go type: time
	    updated_at: any;
	
	    static createFrom(source: any = {}) {
	        return new Conversation(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.title = source["title"];
	        this.collection_id = source["collection_id"];
	        this.created_at = this.convertValues(source["created_at"], null);
	        this.updated_at = this.convertValues(source["updated_at"], null);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Document {
	    id: number;
	    collection_id: number;
	    sha256: string;
	    name: string;
	    source_path?: string;
	    kind: string;
	    mime?: string;
	    size_bytes: number;
	    blob?: string;
	    status: string;
	    error?: string;
	    pages: number;
	    duration_ms?: number;
	    meta?: string;
	    // Go type: time
	    created_at: any;
	    // Go type: time
	    updated_at: any;
	
	    static createFrom(source: any = {}) {
	        return new Document(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.collection_id = source["collection_id"];
	        this.sha256 = source["sha256"];
	        this.name = source["name"];
	        this.source_path = source["source_path"];
	        this.kind = source["kind"];
	        this.mime = source["mime"];
	        this.size_bytes = source["size_bytes"];
	        this.blob = source["blob"];
	        this.status = source["status"];
	        this.error = source["error"];
	        this.pages = source["pages"];
	        this.duration_ms = source["duration_ms"];
	        this.meta = source["meta"];
	        this.created_at = this.convertValues(source["created_at"], null);
	        this.updated_at = this.convertValues(source["updated_at"], null);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Evaluation {
	    id: number;
	    dataset: string;
	    collection: string;
	    config_key: string;
	    config: number[];
	    status: string;
	    // Go type: time
	    created_at: any;
	    // Go type: time
	    updated_at: any;
	    items: number;
	
	    static createFrom(source: any = {}) {
	        return new Evaluation(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.dataset = source["dataset"];
	        this.collection = source["collection"];
	        this.config_key = source["config_key"];
	        this.config = source["config"];
	        this.status = source["status"];
	        this.created_at = this.convertValues(source["created_at"], null);
	        this.updated_at = this.convertValues(source["updated_at"], null);
	        this.items = source["items"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Message {
	    id: number;
	    conversation_id: number;
	    role: string;
	    content: string;
	    run_id?: number;
	    // Go type: time
	    created_at: any;
	
	    static createFrom(source: any = {}) {
	        return new Message(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.conversation_id = source["conversation_id"];
	        this.role = source["role"];
	        this.content = source["content"];
	        this.run_id = source["run_id"];
	        this.created_at = this.convertValues(source["created_at"], null);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace model {
	
	export class Info {
	    name: string;
	    provider: string;
	    chat: boolean;
	    vision: boolean;
	    embedding: boolean;
	    tools: boolean;
	    thinking: boolean;
	    size_bytes?: number;
	
	    static createFrom(source: any = {}) {
	        return new Info(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.provider = source["provider"];
	        this.chat = source["chat"];
	        this.vision = source["vision"];
	        this.embedding = source["embedding"];
	        this.tools = source["tools"];
	        this.thinking = source["thinking"];
	        this.size_bytes = source["size_bytes"];
	    }
	}

}

export namespace probe {
	
	export class Result {
	    name: string;
	    ok: boolean;
	    skipped?: boolean;
	    optional?: boolean;
	    detail: string;
	    fix?: string;
	
	    static createFrom(source: any = {}) {
	        return new Result(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.ok = source["ok"];
	        this.skipped = source["skipped"];
	        this.optional = source["optional"];
	        this.detail = source["detail"];
	        this.fix = source["fix"];
	    }
	}

}

export namespace provider {
	
	export class Result {
	    name: string;
	    kind: string;
	    base_url: string;
	    reachable: boolean;
	    version?: string;
	    models: number;
	    chat_model?: string;
	    chat_model_found?: boolean;
	    embed_model?: string;
	    embed_model_found?: boolean;
	    latency_ms: number;
	    error?: string;
	    note?: string;
	
	    static createFrom(source: any = {}) {
	        return new Result(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.kind = source["kind"];
	        this.base_url = source["base_url"];
	        this.reachable = source["reachable"];
	        this.version = source["version"];
	        this.models = source["models"];
	        this.chat_model = source["chat_model"];
	        this.chat_model_found = source["chat_model_found"];
	        this.embed_model = source["embed_model"];
	        this.embed_model_found = source["embed_model_found"];
	        this.latency_ms = source["latency_ms"];
	        this.error = source["error"];
	        this.note = source["note"];
	    }
	}

}

export namespace search {
	
	export class Box {
	    term: string;
	    x0: number;
	    y0: number;
	    x1: number;
	    y1: number;
	
	    static createFrom(source: any = {}) {
	        return new Box(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.term = source["term"];
	        this.x0 = source["x0"];
	        this.y0 = source["y0"];
	        this.x1 = source["x1"];
	        this.y1 = source["y1"];
	    }
	}
	export class Scores {
	    bm25?: number;
	    text?: number;
	    visual?: number;
	
	    static createFrom(source: any = {}) {
	        return new Scores(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.bm25 = source["bm25"];
	        this.text = source["text"];
	        this.visual = source["visual"];
	    }
	}
	export class Hit {
	    unit_id: number;
	    document_id: number;
	    doc: string;
	    doc_kind: string;
	    collection_id: number;
	    page: number;
	    unit_kind: string;
	    t_start_ms?: number;
	    t_end_ms?: number;
	    width: number;
	    height: number;
	    score: number;
	    scores: Scores;
	    ranks: number[];
	    thumb?: string;
	    boxes: Box[];
	    snippet?: string;
	
	    static createFrom(source: any = {}) {
	        return new Hit(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.unit_id = source["unit_id"];
	        this.document_id = source["document_id"];
	        this.doc = source["doc"];
	        this.doc_kind = source["doc_kind"];
	        this.collection_id = source["collection_id"];
	        this.page = source["page"];
	        this.unit_kind = source["unit_kind"];
	        this.t_start_ms = source["t_start_ms"];
	        this.t_end_ms = source["t_end_ms"];
	        this.width = source["width"];
	        this.height = source["height"];
	        this.score = source["score"];
	        this.scores = this.convertValues(source["scores"], Scores);
	        this.ranks = source["ranks"];
	        this.thumb = source["thumb"];
	        this.boxes = this.convertValues(source["boxes"], Box);
	        this.snippet = source["snippet"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Result {
	    hits: Hit[];
	    notes?: string[];
	
	    static createFrom(source: any = {}) {
	        return new Result(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.hits = this.convertValues(source["hits"], Hit);
	        this.notes = source["notes"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace watch {
	
	export class Folder {
	    id: number;
	    collection_id: number;
	    collection: string;
	    path: string;
	    // Go type: time
	    created_at: any;
	    // Go type: time
	    scanned_at: any;
	    error?: string;
	    files: number;
	    documents: number;
	
	    static createFrom(source: any = {}) {
	        return new Folder(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.collection_id = source["collection_id"];
	        this.collection = source["collection"];
	        this.path = source["path"];
	        this.created_at = this.convertValues(source["created_at"], null);
	        this.scanned_at = this.convertValues(source["scanned_at"], null);
	        this.error = source["error"];
	        this.files = source["files"];
	        this.documents = source["documents"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Status {
	    id: number;
	    collection_id: number;
	    collection: string;
	    path: string;
	    // Go type: time
	    created_at: any;
	    // Go type: time
	    scanned_at: any;
	    error?: string;
	    files: number;
	    documents: number;
	    state: string;
	    pending: number;
	    last_error?: string;
	    seq: number;
	
	    static createFrom(source: any = {}) {
	        return new Status(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.collection_id = source["collection_id"];
	        this.collection = source["collection"];
	        this.path = source["path"];
	        this.created_at = this.convertValues(source["created_at"], null);
	        this.scanned_at = this.convertValues(source["scanned_at"], null);
	        this.error = source["error"];
	        this.files = source["files"];
	        this.documents = source["documents"];
	        this.state = source["state"];
	        this.pending = source["pending"];
	        this.last_error = source["last_error"];
	        this.seq = source["seq"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

