# Log in, then create an item and read it back (a README snippet).
$ export BASE=https://api.example.com
$ curl -sS -X POST "$BASE/login" \
    --json '{"user": "alice", "password": "'"$PASSWORD"'"}'
$ curl -sSL -XPOST "$BASE/items" -H "Authorization: Bearer $TOKEN" \
    -H 'Accept: application/json' \
    --data-raw '{"name": "notes ${{ not an expression }}", "price": 9.99, "count": 12345678901234567890}'
% curl "$BASE/items?tag=a&tag=b" -H 'Accept: application/json' -H "Authorization: Bearer $TOKEN" -m 2.5 # list
