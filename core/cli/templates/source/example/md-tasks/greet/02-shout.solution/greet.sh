if [ "$1" = --shout ]; then
  echo "hello, $2" | tr a-z A-Z
else
  echo "hello, $1"
fi
