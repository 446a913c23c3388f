curl --data 'secret=*%5*!' http://localhost:28139/post
