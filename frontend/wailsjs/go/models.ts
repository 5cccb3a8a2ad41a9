export namespace main {
	
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

