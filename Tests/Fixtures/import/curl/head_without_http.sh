curl --head localhost:28139/page
