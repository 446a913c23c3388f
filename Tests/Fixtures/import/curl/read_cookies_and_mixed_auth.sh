curl 'http://localhost:28139' -b cookies.txt --oauth2-bearer AAAAAAAAAAAA --user user:pass --no-basic --digest
