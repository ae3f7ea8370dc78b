echo "hello, $1"
